# rtopo-run launcher
bin_PROGRAMS += tools/rtopo-run
tools_rtopo_run_SOURCES = tools/rtopo-run.c tools/run_hosts.c tools/run_hosts.h
tools_rtopo_run_CPPFLAGS = $(RTOPO_INC_TOOLS)
tools_rtopo_run_LDADD = librtopo_core.la
bin_SCRIPTS = tools/rtopo-host-exec
EXTRA_DIST += tools/rtopo-host-exec
