#pragma once

#include "decomposition/mpi_context.hpp"

namespace zoneode::testing {
extern const MpiContext* mpi;
}
