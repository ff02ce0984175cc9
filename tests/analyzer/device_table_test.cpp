// Tests of analyzer/device_table.h
