# rtopo-sim simulator
