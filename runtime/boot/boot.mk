# runtime/boot/: the bootstrap layer (rank, size, peers' addresses), on
# base/ only
noinst_HEADERS += runtime/boot/boot.h runtime/boot/boot_wire.h
librtopo_boot_la_SOURCES += \
	runtime/boot/boot.c \
	runtime/boot/boot_env.c \
	runtime/boot/boot_oob.c \
	runtime/boot/boot_wire.c
librtopo_boot_la_CPPFLAGS += $(NETTLE_CFLAGS)
librtopo_boot_la_LIBADD += $(NETTLE_LIBS)
if HAVE_PMIX
librtopo_boot_la_SOURCES += runtime/boot/boot_pmix.c
librtopo_boot_la_CPPFLAGS += $(PMIX_CFLAGS)
librtopo_boot_la_LIBADD += $(PMIX_LIBS)
endif HAVE_PMIX
