# rtopo-sim simulator
bin_PROGRAMS += tools/rtopo-sim
tools_rtopo_sim_SOURCES = tools/rtopo-sim.c tools/sim_opts.c tools/sim_opts.h tools/sim_draw.c tools/sim_draw.h \
	tools/sim_hosts.c tools/sim_hosts.h
tools_rtopo_sim_CPPFLAGS = $(RTOPO_INC_TOOLS)
tools_rtopo_sim_LDADD = librtopo_core.la
