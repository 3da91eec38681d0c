// generated: network-specialised device code compiled at run time (issue 36). The implicit method
// has it (kernels/implicit/implicit_generated.hip: the network's linear algebra as straight-line
// code, NVRTC); the asymptotic and qss2 methods do not yet (issue 38 plans their generated step),
// so this variant has no launch operations for them and the backend refuses them by name.
#include "runtime/kernel_launch.hpp"

namespace zoneode::gpu {

const VariantOps* generated_variant() { return nullptr; }

}  // namespace zoneode::gpu

// resources: none (no asymptotic kernel; scripts/kernel-resources.sh skips it)
