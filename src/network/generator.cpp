// placeholder until its owner writes it
#include "network/generator.hpp"
