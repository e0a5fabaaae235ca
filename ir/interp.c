/* interp.c - placeholder, being written */
#include "ir.h"
