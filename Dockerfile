# syntax=docker/dockerfile:1
# devkb in one image: the Angular SPA built by Node, served by the Python API server.
#   docker compose up -d          (the production path: Neo4j + Ollama + devkb, see docs/neo4j.md)
#   docker build -t devkb .       (the image alone)

# -- 1. the web app ----------------------------------------------------------------------------
FROM node:20-bookworm-slim AS web
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY frontend/ ./
# angular.json writes the build to ../backend/src/devkb/static, i.e. /src/backend/src/devkb/static
RUN npx ng build

# -- 2. the model's ONNX export (torch, thrown away with this stage) ----------------------------
FROM python:3.11-slim AS model
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# torch CPU-only (the default wheel pulls in GBs of CUDA)
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY backend/ /src/backend/
RUN pip install "/src/backend[torch]" \
 && python -m devkb.indexing.embedders.onnx_export --out /opt/devkb/models

# -- 3. the server: no torch, the exported model copied in ---------------------------------------
FROM python:3.11-slim AS app
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

COPY backend/ ./backend/
# the SPA goes into the package's static folder before the install, so the wheel carries it
COPY --from=web /src/backend/src/devkb/static/ ./backend/src/devkb/static/
RUN pip install ./backend && rm -rf ./backend
COPY --from=model /opt/devkb/models /opt/devkb/models

RUN useradd --create-home --uid 10001 devkb && mkdir -p /data && chown devkb:devkb /data
USER devkb
ENV DEVKB_DATA_DIR=/data \
    DEVKB_MODEL_CACHE_DIR=/opt/devkb/models \
    DEVKB_HOST=0.0.0.0 \
    DEVKB_PORT=8000
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=5 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
CMD ["devkb", "serve", "--host", "0.0.0.0"]
