# rtopo-run launcher
bin_PROGRAMS += tools/rtopo-run
tools_rtopo_run_SOURCES = tools/rtopo-run.c
tools_rtopo_run_CPPFLAGS = $(RTOPO_INC_TOOLS)
tools_rtopo_run_LDADD = librtopo_core.la
