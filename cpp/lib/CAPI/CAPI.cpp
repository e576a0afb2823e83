//===- CAPI.cpp - C API of hostoffload ------------------------------------===//

#include "hostoffload/CAPI.h"

#include "hostoffload/Passes.h"

void hostoffloadRegisterPasses(void) { hostoffload::registerHostOffloadPasses(); }
