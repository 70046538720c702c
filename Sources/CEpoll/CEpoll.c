// SwiftPM needs one C source file per C target; the shim is header-only.
#include "CEpoll.h"
