// What is at a path that should be a regular file, in words, for messages about inputs and outputs
// (a FIFO given as an input blocked the run in open() for ever: callers stat before they open).
#pragma once

#include <filesystem>
#include <string>

namespace zoneode {

// "a directory", "a FIFO (named pipe)", ...
inline std::string file_kind_name(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::regular: return "a regular file";
    case std::filesystem::file_type::directory: return "a directory";
    case std::filesystem::file_type::fifo: return "a FIFO (named pipe)";
    case std::filesystem::file_type::socket: return "a socket";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::symlink: return "a symbolic link";
    case std::filesystem::file_type::not_found: return "no such file";
    default: return "not a regular file";
  }
}

}  // namespace zoneode
