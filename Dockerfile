# syntax=docker/dockerfile:1
# Build: Maven on JDK 17. Tests run in CI (`mvn verify`), not in the image build.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml LICENSE NOTICE ./
COPY src/bom/pom.xml src/bom/
COPY src/core/pom.xml src/core/
COPY src/servicebus/pom.xml src/servicebus/
COPY src/cosmos/pom.xml src/cosmos/
COPY src/relay/pom.xml src/relay/
COPY src/telemetry/pom.xml src/telemetry/
COPY src/azure/pom.xml src/azure/
COPY src/spring-boot-starter/pom.xml src/spring-boot-starter/
COPY src/emulators/pom.xml src/emulators/
COPY src/worker/pom.xml src/worker/
COPY src/proof/pom.xml src/proof/
# The reactor lists the examples, the infra check and the release check too, so their poms must be
# here; the image never builds them (-pl below). src/bom is the root pom's parent.
COPY src/infra-check/pom.xml src/infra-check/
COPY examples/order-service/pom.xml examples/order-service/
COPY examples/shipments/pom.xml examples/shipments/
COPY examples/shipments-spring/pom.xml examples/shipments-spring/
COPY src/release-check/pom.xml src/release-check/
# Download dependencies before copying the sources, into a cache mount: ~/.m2 survives between builds
# on the same builder but is in no image layer (this step's layer is empty), so the package step below
# reuses it on that builder only, and a fresh builder (CI, a new machine) downloads everything again.
RUN --mount=type=cache,target=/root/.m2 mvn -B -q -DskipTests -pl src/worker,src/proof -am dependency:go-offline
COPY src ./src
RUN --mount=type=cache,target=/root/.m2 mvn -B -DskipTests -pl src/worker,src/proof -am package \
    && test -f src/worker/target/idemworker-worker.jar && test -d src/worker/target/lib \
    && test -f src/proof/target/idemworker.jar && test -d src/proof/target/lib

# The payment provider double (target payments-double): the proof module's jar, which holds the
# emulators, for a test deployment without a real provider. Never the worker's image.
FROM eclipse-temurin:17-jre AS payments-double
RUN groupadd --system --gid 10001 idemworker \
    && useradd --system --uid 10001 --gid idemworker --no-create-home --shell /usr/sbin/nologin idemworker
WORKDIR /app
COPY --from=build --chown=root:root /src/src/proof/target/lib/ /app/lib/
COPY --from=build --chown=root:root /src/src/proof/target/idemworker.jar /app/idemworker.jar
USER 10001:10001
EXPOSE 8082
# The JVM and its options in ENTRYPOINT, the command in CMD: a Container App that passes other
# arguments (payments-app.bicep: the port and bind address) replaces CMD only, never the JVM options.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/idemworker.jar"]
CMD ["emulators", "--only", "payments"]

# The worker's class-data archive: a training run of the worker jar, at the paths the worker's image
# uses, against the emulators (the proof jar, in this stage only) lists the classes it loads; the JVM
# then maps them into /app/idemworker.jsa. A replica maps those classes at start instead of loading
# and verifying them: its first message settles seconds sooner (docs/cold-start.md, bench cold).
# The step first removes the signature files from the signed jars in /app/lib (the Azure SDK's): an
# archive leaves out every class of a signed jar, which were the SDKs' classes every message runs
# through. The archive only fits this JVM and these jars (same size and modification time), so the
# runtime stage copies /app/lib from this stage, not from the build; a JVM that finds the archive
# does not fit starts without it, as it would with no archive at all.
FROM eclipse-temurin:17-jre AS class-data
WORKDIR /app
COPY --from=build /src/src/worker/target/lib/ /app/lib/
COPY --from=build /src/src/worker/target/idemworker-worker.jar /app/idemworker.jar
COPY --from=build /src/src/proof/target/lib/ /proof/lib/
COPY --from=build /src/src/proof/target/idemworker.jar /proof/idemworker.jar
COPY Dockerfile /proof/Dockerfile
RUN java -jar /proof/idemworker.jar bench cold --write-archive /app/idemworker.jsa \
    --worker-jar /app/idemworker.jar --dockerfile /proof/Dockerfile \
    && test -s /app/idemworker.jsa

# The worker (the default target, last): the worker module and its runtime dependencies only,
# no emulator or proof class. JRE 17 only, as an unprivileged user.
FROM eclipse-temurin:17-jre AS runtime
RUN groupadd --system --gid 10001 idemworker \
    && useradd --system --uid 10001 --gid idemworker --no-create-home --shell /usr/sbin/nologin idemworker
WORKDIR /app
# The jar's manifest puts lib/*.jar on the class path, relative to the jar.
# lib/ as the class-data stage left it (unsigned), so that the archive fits it.
COPY --from=class-data --chown=root:root /app/lib/ /app/lib/
COPY --from=class-data --chown=root:root /app/idemworker.jar /app/idemworker.jar
COPY --from=class-data --chown=root:root /app/idemworker.jsa /app/idemworker.jsa
USER 10001:10001
ENV HEALTH_PORT=8080
# Inside the container the platform's probes and ingress reach the container's own interface, so the
# image listens on every interface; outside it the api and the probes default to loopback.
ENV HEALTH_BIND=0.0.0.0 API_BIND=0.0.0.0
# Health endpoints only (GET /health/live, /health/ready); the worker takes no other inbound traffic.
EXPOSE 8080
# Size the heap from the container's memory limit, and let the platform restart a replica that runs
# out of memory instead of limping on. The parallel collector: the worker's live set is small and
# nearly everything it allocates dies young, so G1's write barriers and concurrent threads cost CPU
# for nothing; it took about 7 % less CPU per message (docs/benchmarks.md).
# -XX:SharedArchiveFile maps the classes of the archive made above.
# -XX:TieredStopAtLevel=1 compiles with C1 only: on a replica's one or two cores C2's compilations
# compete with the messages for thousands of them, so a fresh replica ran its first 10,000 messages
# two to three times faster without C2, and its first settled message came sooner; once fully warm
# (after 40,000 messages) C2's code is about 10 % faster (docs/cold-start.md). For replicas that live
# long on a steady load, drop this option (command-line options win over JAVA_TOOL_OPTIONS).
# The options live in ENTRYPOINT and the command in CMD, so the apps that run another command (api,
# relay) pass `args` and keep every option here; a Container App `command` would replace them all.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:InitialRAMPercentage=50", "-XX:+ExitOnOutOfMemoryError", "-XX:+UseParallelGC", "-XX:TieredStopAtLevel=1", "-XX:SharedArchiveFile=/app/idemworker.jsa", "-jar", "/app/idemworker.jar"]
CMD ["run"]
