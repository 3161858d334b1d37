"""Tests of the GPU kind's readers."""
