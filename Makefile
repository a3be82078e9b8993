# Thin wrapper: every target calls a script in scripts/ (the logic lives there).
.PHONY: setup run test bench eval lint clean

setup:
	@bash scripts/setup.sh

run: setup
	@bash scripts/run.sh

test: setup
	@bash scripts/test.sh

bench: setup
	@bash scripts/bench.sh $(ARGS)

eval: setup
	@bash scripts/eval.sh $(ARGS)

lint: setup
	@bash scripts/lint.sh

clean:
	rm -rf .venv data .cache frontend/node_modules frontend/dist
