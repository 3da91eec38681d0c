// One owner for HDF5 identifiers, for the app, zoneode-compare and the tests.
#pragma once

#include <hdf5.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace zoneode {

// Owns one HDF5 identifier and closes it with the matching H5*close. An invalid identifier
// (HDF5 returns a negative one on failure) is held as such: see valid() and checked().
class Hdf5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Hdf5Handle() = default;
  Hdf5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Hdf5Handle(Hdf5Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), closer_(other.closer_) {}
  Hdf5Handle& operator=(Hdf5Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, -1);
      closer_ = other.closer_;
    }
    return *this;
  }
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  ~Hdf5Handle() { reset(); }

  hid_t get() const { return id_; }
  // Gives the identifier up without closing it (see write_state_file: a file that failed to be
  // written by one rank cannot be closed collectively).
  hid_t release() { return std::exchange(id_, -1); }
  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }

  // Closes now and reports failure: closing a file flushes it, so a failed close is a failed write.
  void close(const std::string& what) {
    const herr_t status = closer_(std::exchange(id_, -1));
    if (status < 0) throw std::runtime_error(what);
  }

 private:
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = -1;
  }
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// A handle that is valid, or Error(what).
template <typename Error = std::runtime_error>
Hdf5Handle checked(hid_t id, Hdf5Handle::Closer closer, const std::string& what) {
  Hdf5Handle handle(id, closer);
  if (!handle.valid()) throw Error(what);
  return handle;
}

// A non-negative HDF5 status, or Error(what).
template <typename Error = std::runtime_error>
void check(herr_t status, const std::string& what) {
  if (status < 0) throw Error(what);
}

// Why an HDF5 call failed, as ": REASON": the innermost entry of HDF5's error stack (this
// thread's), and the system's reason where the failing write left one in errno (MPI-IO's short
// write: HDF5 says only "file write failed"). The caller sets errno to 0 before the call:
// "cannot write /abundances" alone did not say "No space left on device".
inline std::string hdf5_failure_reason(int errno_now) {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned depth, const H5E_error2_t* entry, void* data) -> herr_t {
        if (depth == 0 && entry != nullptr && entry->desc != nullptr) *static_cast<std::string*>(data) = entry->desc;
        return 0;
      },
      &reason);
  // One line, at most 300 bytes: HDF5's descriptions may carry a path and the time.
  for (char& c : reason)
    if (c == '\n' || c == '\r') c = ' ';
  if (reason.size() > 300) reason = reason.substr(0, 300) + "...";
  if (errno_now != 0 && reason.find(std::strerror(errno_now)) == std::string::npos)
    reason += (reason.empty() ? "" : ": ") + std::string(std::strerror(errno_now));
  return reason.empty() ? reason : ": " + reason;
}

// HDF5 prints its error stack to stderr by default; our messages name the file and object instead.
// Called before any other HDF5 call (a static initialiser in io/hdf5_state.cpp), it also keeps
// HDF5 from closing what is still open at exit: a file whose H5Fclose failed (a write error while
// flushing) stays registered with its memory already freed, and closing it again at exit crashed
// (SIGSEGV after the right message and exit code 1). Every file is closed explicitly anyway.
inline void silence_hdf5_error_stack() {
  H5dont_atexit();  // fails harmlessly when HDF5 is initialised already
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace zoneode
