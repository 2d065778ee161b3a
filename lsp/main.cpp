// lsp/main.cpp — the `asyncfix-lsp` executable.
#include "launch.h"

int main(int argc, char **argv) { return asyncfix::lsp::lspMain(argc, argv); }
