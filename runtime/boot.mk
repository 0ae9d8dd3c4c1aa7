# bootstrap methods (runtime/boot*.c)
