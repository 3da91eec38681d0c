// placeholder until its owner writes it
#include "network/network_file.hpp"
