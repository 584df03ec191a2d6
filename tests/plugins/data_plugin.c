/* A "plugin" whose iob_plugin_entry is data, not a function: calling it
 * would jump into bytes.  The loader must refuse it without running it in
 * its own process.  (Does not include plugin.h: the names would clash.) */
__attribute__((visibility("default"))) const unsigned char iob_plugin_entry[64] = {0xcc, 0xcc, 0xcc, 0xcc};
