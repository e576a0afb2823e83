//===- ProgramErrors.cpp - failures caused by the program -----------------===//

#include "hostoffload/Passes.h"

#include <atomic>

namespace hostoffload {

// Passes may run on several threads (one per nested module).
static std::atomic<bool> programErrorRecorded{false};

void recordProgramError() { programErrorRecorded = true; }

bool hasRecordedProgramError() { return programErrorRecorded; }

} // namespace hostoffload
