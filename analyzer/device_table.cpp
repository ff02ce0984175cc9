#include "analyzer/device_table.h"
