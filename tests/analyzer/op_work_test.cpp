// Tests of analyzer/op_work.h
