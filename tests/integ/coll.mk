# the collectives over the network (coll_check under rtopo-run: OTIS-mesh
# and OTIS-hypercube of 4 and 16 ranks, 16 ranks on 4 emulated hosts, ring,
# mesh and hypercube of 4 and 8) on ofi:tcp, ofi:shm and rtopo's own shm,
# their errors, and against MPI's in an MPI program under mpirun; the
# selection ranks and the OTIS-mesh routing (concentrate, distribute,
# generalize, random access write and read) against what MPI computes, in
# an MPI program under mpirun
check_PROGRAMS += tests/integ/coll_check
tests_integ_coll_check_SOURCES = tests/integ/coll_check.c tests/integ/integ_util.h
tests_integ_coll_check_LDADD = librtopo.la
tests_integ_coll_check_LDFLAGS = $(INTREE_LINK)
COLL_TESTS = tests/integ/coll_errors.sh tests/integ/mpirun_coll.sh tests/integ/mpirun_route.sh
TESTS += $(COLL_TESTS)
# mpi_coll_check and mpi_route_check are built by mpirun_coll.sh and
# mpirun_route.sh with mpicc, when MPI is there
EXTRA_DIST += $(COLL_TESTS) tests/integ/mpi_coll_check.c \
	tests/integ/mpi_route_check.c
CLEANFILES += tests/integ/mpi_coll_check tests/integ/mpi_route_check
