# rtopo-bench
