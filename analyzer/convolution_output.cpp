#include "analyzer/convolution_output.h"
