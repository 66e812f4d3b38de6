# tests of the gpu area
