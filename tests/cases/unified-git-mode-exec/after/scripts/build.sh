#!/bin/sh
set -e
echo building
make all
