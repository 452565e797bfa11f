# The action's image: adk-eval-gate with google-adk, every package pinned by constraints/docker.txt.
#
# Stage "build" downloads or builds a wheel for every pinned package and installs the wheels into a virtualenv;
# the final stage copies only that virtualenv onto a fresh base, so no wheel, pip cache or build dependency is
# left in the image. Bytecode is compiled with unchecked hashes so the first run does not compile anything.
FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_ROOT_USER_ACTION=ignore
WORKDIR /src

# Dependencies first: this layer is rebuilt only when the pins change.
COPY constraints/docker.txt constraints/docker.txt
RUN python -m venv /opt/adk-eval-gate \
 && python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels -r constraints/docker.txt \
 && /opt/adk-eval-gate/bin/python -m pip install --no-cache-dir --no-index --find-links /wheels \
      -r constraints/docker.txt \
 && /opt/adk-eval-gate/bin/python -m compileall -q -f --invalidation-mode unchecked-hash /opt/adk-eval-gate/lib

COPY pyproject.toml README.md ./
COPY src/ src/
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels/self . \
 && /opt/adk-eval-gate/bin/python -m pip install --no-cache-dir --no-index --no-deps /wheels/self/*.whl \
 && /opt/adk-eval-gate/bin/python -m pip check \
 && /opt/adk-eval-gate/bin/python -m compileall -q -f --invalidation-mode unchecked-hash \
      /opt/adk-eval-gate/lib/python3.11/site-packages/adk_eval_gate

FROM python:3.11-slim
LABEL org.opencontainers.image.title="ADK Eval Gate" \
      org.opencontainers.image.description="Runs Google ADK agent evaluations as a CI gate" \
      org.opencontainers.image.licenses="Apache-2.0"
# PYTHONDONTWRITEBYTECODE: never leave root-owned __pycache__ folders in the user's workspace.
# PIP_NO_CACHE_DIR: installing the agent's requirements writes nothing under the runner's HOME.
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PATH=/opt/adk-eval-gate/bin:$PATH
# git: only-affected diffs the checkout against the base run's commit (and fetches that commit in a shallow clone).
# It runs only git's compiled commands, so git comes without Perl (which only git's scripts use), translations,
# documentation and man pages: about 38 MB instead of 105 on python:3.11-slim. Debian's copyright files stay.
# Not pinned: Debian removes superseded package versions from its mirrors, so a pin breaks the build at the next
# security update of git; the base image's tag already fixes the Debian release.
# hadolint ignore=DL3008,SC2046
RUN printf 'path-exclude=/usr/share/%s/*\n' locale doc man >/etc/dpkg/dpkg.cfg.d/adk-eval-gate-no-docs \
 && echo 'path-include=/usr/share/doc/*/copyright' >>/etc/dpkg/dpkg.cfg.d/adk-eval-gate-no-docs \
 && apt-get update -q \
 && apt-get install -y -q --no-install-recommends git \
 && dpkg --purge --force-depends \
      $(dpkg-query -W -f '${binary:Package}\n' perl liberror-perl 'perl-modules-*' 'libperl5*' 2>/dev/null) \
 && git --version \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
      /etc/dpkg/dpkg.cfg.d/adk-eval-gate-no-docs
COPY --from=build /opt/adk-eval-gate /opt/adk-eval-gate
COPY entrypoint.sh /usr/local/bin/adk-eval-gate-entrypoint
# No USER: GitHub runs Docker actions as the image's default user (root) so the workspace stays writable.
ENTRYPOINT ["/usr/local/bin/adk-eval-gate-entrypoint"]
