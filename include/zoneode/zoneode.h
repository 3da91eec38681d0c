/* zoneode as a library: a burner that a simulation code calls once per time step.
 *
 * C API, usable from C, C++, Fortran (iso_c_binding) and Python (ctypes). Three lines:
 *
 *   zoneode_burner* burner;
 *   zoneode_burner_create_from_file("deck.yaml", NULL, 0, &burner);
 *   zoneode_burn(burner, zones, species, dt, T9, rho, Y, results, ZONEODE_HOST_MEMORY);
 *
 * The burner is made from a zoneode deck (inputs/README.md), read by the program's own deck reader:
 * its network, integrator, run and physics sections say what is burned and how (method, schedule,
 * tolerances, backend, threads, screening, self-heating, ...). Its zones, steps, output and
 * validation sections are the program's: checked when present, not needed, and not used here. The
 * zones come from the caller at every burn, and the integration runs through the same backend
 * objects (src/backends) as the program's, so both give bitwise the same abundances and results
 * (a burn of dt from the deck's start_time t0 is the program's when t0 + dt is its end_time).
 *
 * Conventions
 * - Every function but zoneode_burner_destroy, zoneode_last_error, zoneode_api_version,
 *   zoneode_version, zoneode_data_dir and zoneode_zone_status_name returns an int: ZONEODE_OK (0), ZONEODE_ZONES_FAILED
 *   (1: the burn finished but some zone failed; see the per-zone status) or a negative ZONEODE_ERROR_*.
 *   zoneode_last_error() then gives the message (file, line, key and what was expected, for a deck).
 *   No call exits the process, aborts on bad input, or writes to stdout/stderr.
 * - Arrays belong to the caller. Abundances are Y [mol/g] (mass fraction X_i = A_i Y_i), zone-major:
 *   Y[zone * species_count + species], species in zoneode_burner_species_name() order.
 * - Thread safety: distinct burners may be used concurrently from distinct threads (one burner per
 *   thread); one burner must not be used from two threads at once. The CPU backend parallelises the
 *   zones of one burn with OpenMP (deck run.threads; 0: the OpenMP default of the thread that
 *   created the burner; inside an OpenMP parallel region, a burn runs on its calling thread unless
 *   nesting is enabled). The caller's own OpenMP settings are left as they were.
 * - MPI-agnostic: the library never calls MPI; each rank creates its own burner for its own zones.
 * - Results do not depend on the thread count, the batch of zones burned together or their order:
 *   each zone's result depends only on its own T9, rho and Y (bitwise).
 *
 * Versioning: ZONEODE_API_VERSION changes with any incompatible change of this header (a function's
 * signature or meaning, a struct's layout); zoneode_api_version() is the library's, to compare.
 */
#ifndef ZONEODE_ZONEODE_H
#define ZONEODE_ZONEODE_H

#include <stdint.h>

#if defined(_WIN32)
#define ZONEODE_EXPORT
#elif defined(__GNUC__)
#define ZONEODE_EXPORT __attribute__((visibility("default")))
#else
#define ZONEODE_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ZONEODE_API_VERSION 1

/* Return codes. */
#define ZONEODE_OK 0
#define ZONEODE_ZONES_FAILED 1              /* burn done; at least one zone's status is not ZONEODE_ZONE_OK */
#define ZONEODE_ERROR_NULL_ARGUMENT (-1)    /* a required pointer was NULL */
#define ZONEODE_ERROR_INVALID_ARGUMENT (-2) /* a count, index, dt or flag out of range, or a species count
                                               that is not the burner's */
#define ZONEODE_ERROR_INPUT (-3)            /* the deck or the network it names (unreadable, bad key, bad value) */
#define ZONEODE_ERROR_UNSUPPORTED (-4)      /* valid, but not here (device memory on a CPU burner, a GPU backend in a CPU build) */
#define ZONEODE_ERROR_OUT_OF_MEMORY (-5)
#define ZONEODE_ERROR_RUNTIME (-6)          /* the backend failed (e.g. a device error); the zones are unchanged
                                               on the CPU backend, undefined on a GPU one */

/* GPU builds (-DZONEODE_GPU=HIP or CUDA): the library is not built by default there yet (CMake option
   ZONEODE_LIBRARY, OFF with a GPU backend). Built, a deck with run.backend: gpu burns host arrays
   through the GPU backend's upload, integrate and download, the program's path, or device arrays in
   place (ZONEODE_DEVICE_MEMORY); tests/gpu/api_device_memory.cpp checks both on a GPU. */

/* Where the arrays handed to zoneode_burn live (its `memory` argument). */
#define ZONEODE_HOST_MEMORY 0
#define ZONEODE_DEVICE_MEMORY 1 /* T9, rho and Y are device pointers of the burner's GPU (device or managed
                                   allocations on it): the kernels read and write them in place, no copy
                                   (results stay a host array; with self-heating the final T9 is copied
                                   back into T9). The kernels run on the legacy default stream of the
                                   burner's GPU (made current for the call, the caller's restored): work
                                   on other streams writing the arrays must be complete. A burner on the
                                   CPU backend returns
                                   ZONEODE_ERROR_UNSUPPORTED; a pointer that is not memory of the burner's
                                   GPU, ZONEODE_ERROR_INVALID_ARGUMENT naming it. */

/* Per-zone status (zoneode_zone_result.status), as in the program's state files. */
#define ZONEODE_ZONE_OK 0
#define ZONEODE_ZONE_NON_FINITE 1    /* an abundance became NaN or infinite */
#define ZONEODE_ZONE_MASS_DRIFT 2    /* sum A Y drifted beyond integrator.max_mass_drift */
#define ZONEODE_ZONE_MAX_STEPS 3     /* integrator.max_steps reached before the end of the burn */
#define ZONEODE_ZONE_STEP_UNDERFLOW 4 /* adaptive dt fell below 1e-15 t */
#define ZONEODE_ZONE_BAD_INPUT 5     /* T9, rho or a Y not finite, or T9 or rho not positive */
/* A failed zone keeps the last state that passed the checks; the other zones are not affected. */

typedef struct zoneode_burner zoneode_burner; /* opaque */

/* What one zone's burn did; every field written by zoneode_burn. */
typedef struct zoneode_zone_result {
  int32_t status;               /* ZONEODE_ZONE_* */
  int32_t reserved;             /* 0 */
  int64_t steps;                /* accepted integrator steps */
  int64_t rejected_steps;       /* rejected (adaptive schedule) */
  int64_t rhs_evaluations;      /* right-hand side evaluations (implicit and qss2 methods; 0 for asymptotic) */
  int64_t jacobian_evaluations; /* analytic Jacobians (implicit) */
  int64_t factorizations;       /* sparse LU factorisations (implicit) */
  double energy_released;       /* [erg/g] nuclear energy released over the burn (neutrino losses taken
                                   off with physics.neutrino_losses): energy_rate * time_burned */
  double energy_rate;           /* [erg/(g s)] its mean rate over the burn (the program's energy rate) */
  double time_burned;           /* [s] dt for a complete burn (up to rounding); less where a zone failed */
  double final_T9;              /* [GK] T9 at the end (differs from the input only with physics.self_heating) */
  double mass_fraction_sum;     /* sum A Y of the returned state */
  double max_mass_drift;        /* largest |sum A Y - initial| / initial over accepted states */
} zoneode_zone_result;

/* The header version the library was built with (compare with ZONEODE_API_VERSION), and the
   library's version text ("0.1.0 (commit ...)"). */
ZONEODE_EXPORT int zoneode_api_version(void);
ZONEODE_EXPORT const char* zoneode_version(void);

/* The message of the last call on this thread that returned non-zero ("" if none yet). Owned by the
   library; valid until the next zoneode call on this thread. */
ZONEODE_EXPORT const char* zoneode_last_error(void);

/* "ok", "non_finite", "mass_drift", "max_steps", "step_underflow", "bad_input"; "unknown" otherwise. */
ZONEODE_EXPORT const char* zoneode_zone_status_name(int status);

/* Creates a burner from deck text (YAML) or a deck file. `overrides` are `override_count` strings
   "section.key=value" that win over the deck, as the program's --set (may be NULL when the count is
   0). In deck text, relative paths (e.g. network.file) resolve against the working directory; in a
   deck file, against the file's folder. On success *burner is the new burner; on failure it is
   set to NULL. Reads the network and prepares the backend: call once, burn many times. */
ZONEODE_EXPORT int zoneode_burner_create_from_text(const char* deck_yaml, const char* const* overrides,
                                                   int override_count, zoneode_burner** burner);
ZONEODE_EXPORT int zoneode_burner_create_from_file(const char* deck_path, const char* const* overrides,
                                                   int override_count, zoneode_burner** burner);
/* Frees everything the burner holds; NULL is allowed. */
ZONEODE_EXPORT void zoneode_burner_destroy(zoneode_burner* burner);

/* The network's species: their count, and each one's name (lower case: "he4", "c12"; owned by the
   burner, valid until it is destroyed), mass number A and charge Z. */
ZONEODE_EXPORT int zoneode_burner_species_count(const zoneode_burner* burner, int* species_count);
ZONEODE_EXPORT int zoneode_burner_species_name(const zoneode_burner* burner, int species, const char** name);
ZONEODE_EXPORT int zoneode_burner_species_nucleons(const zoneode_burner* burner, int species, int* mass_number,
                                                   int* charge);
/* The index of the species named `name` (as zoneode_burner_species_name gives it), in *species. */
ZONEODE_EXPORT int zoneode_burner_species_index(const zoneode_burner* burner, const char* name, int* species);
/* The resolved deck (every key with its value, defaults included) and what runs the burns
   ("cpu: 4 OpenMP thread(s), ..."); owned by the burner. */
ZONEODE_EXPORT int zoneode_burner_deck(const zoneode_burner* burner, const char** resolved_yaml);
ZONEODE_EXPORT int zoneode_burner_backend(const zoneode_burner* burner, const char** description);
/* The initial abundances the deck's zones.composition gives (the program's zones start there), for
   callers that start from the deck: species_count values into Y. ZONEODE_ERROR_INPUT when the deck
   has no zones section. */
ZONEODE_EXPORT int zoneode_burner_deck_abundances(const zoneode_burner* burner, int species_count, double* Y);

/* Burns `zone_count` zones over a time `dt` [s] (> 0, finite).
     T9       [GK] per zone, in; with physics.self_heating, out too: the T9 where each burn ended
     rho      [g/cm^3] per zone, in
     Y        [mol/g], zone-major [zone][species], in and out (the abundances after the burn)
     results  per zone, out; may be NULL when not wanted; host memory always
     memory   ZONEODE_HOST_MEMORY, or ZONEODE_DEVICE_MEMORY for T9, rho and Y (see above)
   species_count must be the burner's. Each zone runs the deck's integrator from t0 to t0 + dt, t0 being
   integrator.start_time (the origin of the geometric schedule, dt = dt_fraction * t; the adaptive
   schedule's first step is dt_initial, or dt_fraction * t0); integrator.end_time is optional in a
   burner's deck and not used.
   Returns ZONEODE_OK, ZONEODE_ZONES_FAILED (the arrays hold every zone's result; a message names how
   many failed), or an error, the arrays then unchanged (device errors aside). zone_count 0 is a no-op. */
ZONEODE_EXPORT int zoneode_burn(zoneode_burner* burner, int64_t zone_count, int species_count, double dt, double* T9,
                                const double* rho, double* Y, zoneode_zone_result* results, int memory);

/* Where the library looks for its shipped data (partition function tables): the folder found, or ""
   when none is (only decks with physics.partition_functions need it). Looked for once per process
   (at the first call, or the first burner that needs it), in this order: the
   environment's ZONEODE_DATA_DIR; share/zoneode/data beside the library's own folder (an installed,
   possibly relocated, prefix); the source tree (the build tree's library); the install prefix
   configured at build time. The program looks for it alike, beside itself. */
ZONEODE_EXPORT const char* zoneode_data_dir(void);

#ifdef __cplusplus
}
#endif

#endif /* ZONEODE_ZONEODE_H */
