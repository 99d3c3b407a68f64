#!/bin/sh
set -e
echo building
