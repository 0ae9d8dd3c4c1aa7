# rtopo-sim simulator
bin_PROGRAMS += tools/rtopo-sim
tools_rtopo_sim_SOURCES = tools/rtopo-sim.c tools/sim_draw.c tools/sim_draw.h
tools_rtopo_sim_LDADD = librtopo_core.la
