# runtime/tool/: the engine as the tools see it (rtopo_tool.h); part of the
# engine layer, the only engine header on the tools' include path
noinst_HEADERS += runtime/tool/rtopo_tool.h
librtopo_engine_la_SOURCES += runtime/tool/tool.c
