# selection ranks and the OTIS-mesh routing operations over the network
# (route_check under rtopo-run: 16 ranks on one and on 4 emulated hosts,
# other topologies, wrong calls) on ofi:tcp and rtopo's own shm
check_PROGRAMS += tests/integ/route_check
tests_integ_route_check_SOURCES = tests/integ/route_check.c tests/integ/integ_util.h
tests_integ_route_check_LDADD = librtopo.la
tests_integ_route_check_LDFLAGS = $(INTREE_LINK)
# (the matrix in Makefile.include runs route.sh)
