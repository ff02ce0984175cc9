#pragma once
// Fixture: core including the model is an upward include, which the layer check must refuse.
#include "analyzer/model/cost.h"
