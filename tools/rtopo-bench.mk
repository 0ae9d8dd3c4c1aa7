# rtopo-bench: collectives against the raw transport, same run.  The
# benchmarks see the engine through runtime/tool/rtopo_tool.h only
# (RTOPO_INC_TOOLS, Makefile.am).
bin_PROGRAMS += tools/rtopo-bench
tools_rtopo_bench_SOURCES = tools/rtopo-bench.c tools/bench_raw.c tools/bench_raw.h \
	tools/bench_common.c tools/bench_common.h
tools_rtopo_bench_CPPFLAGS = $(RTOPO_INC_TOOLS)
tools_rtopo_bench_LDADD = librtopo_core.la -lm

# rtopo-bench-mpi: rtopo against the MPI code a user would write (and the
# raw transport, and the provider itself), one job under mpirun; built
# when configure finds MPI.  Compiled with $(CC) and the MPI wrapper's
# flags, captured by configure into MPI_CFLAGS and MPI_LIBS.  The fabric
# column (bench_fabric.c) calls libfabric and libibverbs directly, as far
# as configure found them for the transports (HAVE_OFI, HAVE_VERBS).
if HAVE_MPI
bin_PROGRAMS += tools/rtopo-bench-mpi
tools_rtopo_bench_mpi_SOURCES = tools/rtopo-bench-mpi.c tools/bench_raw.c tools/bench_raw.h \
	tools/bench_common.c tools/bench_common.h tools/bench_fabric.c tools/bench_fabric.h
tools_rtopo_bench_mpi_CPPFLAGS = $(RTOPO_INC_TOOLS) $(MPI_CFLAGS) $(OFI_CFLAGS) $(VERBS_CFLAGS)
tools_rtopo_bench_mpi_LDADD = librtopo_core.la $(MPI_LIBS) $(OFI_LIBS) $(VERBS_LIBS) -lm
endif HAVE_MPI
