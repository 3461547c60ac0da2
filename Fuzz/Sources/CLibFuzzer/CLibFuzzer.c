// The declaration in include/CLibFuzzer.h is all this target holds; SwiftPM wants a source file.
#include "CLibFuzzer.h"
