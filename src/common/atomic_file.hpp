// Write-then-rename: a file appears under PATH only when complete, and a failed write leaves a
// previous file at PATH as it was. The content goes to PATH.partial first.
#pragma once

#include <string>

namespace zoneode {

std::string partial_path(const std::string& path);  // PATH.partial

// Renames PATH.partial to PATH. On failure removes PATH.partial and throws std::runtime_error
// naming both files and the OS reason.
void commit_partial_file(const std::string& path);

// Removes PATH.partial after a failed write (no error if it does not exist).
void discard_partial_file(const std::string& path);

// Writes `text` to PATH.partial and commits it; on failure no PATH.partial remains.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace zoneode
