# rtopo-run launcher
