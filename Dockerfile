# The portal on Debian bookworm with Debian's Chromium (PDF charts through kaleido) and fonts.
#   docker build -t gpu-cluster-planner .
#   docker run --rm -p 8501:8501 gpu-cluster-planner
# Several replicas behind nginx with sticky sessions: deploy/README.md.
FROM debian:bookworm-slim

ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    BROWSER_PATH=/usr/bin/chromium

RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3 python3-venv python3-pip ca-certificates \
      chromium fonts-dejavu-core fonts-liberation \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 planner
WORKDIR /srv/planner
COPY --chown=planner:planner . .
USER planner
RUN bash scripts/setup.sh

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD .venv/bin/python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"
CMD [".venv/bin/streamlit", "run", "app/main.py", \
     "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true", \
     "--browser.gatherUsageStats=false"]
