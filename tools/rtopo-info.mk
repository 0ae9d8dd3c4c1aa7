# rtopo-info: build, transports, variables
bin_PROGRAMS += tools/rtopo-info
tools_rtopo_info_SOURCES = tools/rtopo-info.c
tools_rtopo_info_CPPFLAGS = $(RTOPO_INC_TOOLS)
tools_rtopo_info_LDADD = librtopo_core.la
