#pragma once
// Fixture: the model may include core.
#include "analyzer/core/vocabulary.h"
