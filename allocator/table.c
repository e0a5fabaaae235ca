#include "ir/ir.h"
