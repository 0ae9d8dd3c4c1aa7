# rtopo-bench: collectives against the raw transport, same run
bin_PROGRAMS += tools/rtopo-bench
tools_rtopo_bench_SOURCES = tools/rtopo-bench.c
tools_rtopo_bench_LDADD = librtopo_core.la -lm
