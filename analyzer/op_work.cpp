#include "analyzer/op_work.h"
