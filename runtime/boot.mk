# bootstrap methods (runtime/boot*.c)
noinst_HEADERS += runtime/boot_wire.h
librtopo_core_la_SOURCES += \
	runtime/boot.c \
	runtime/boot_env.c \
	runtime/boot_oob.c \
	runtime/boot_wire.c
librtopo_core_la_CPPFLAGS += $(NETTLE_CFLAGS)
librtopo_core_la_LIBADD += $(NETTLE_LIBS)
if HAVE_PMIX
librtopo_core_la_SOURCES += runtime/boot_pmix.c
librtopo_core_la_CPPFLAGS += $(PMIX_CFLAGS)
librtopo_core_la_LIBADD += $(PMIX_LIBS)
endif HAVE_PMIX
