// Tests of analyzer/convolution_output.h
