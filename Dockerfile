# syntax=docker/dockerfile:1
# Onceport image: one jar, every role (`onceport serve|engine|worker|frontend|...`).
#   docker build -t onceport .
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# Dependencies first, so source edits reuse the cached layer.
COPY pom.xml .
RUN mvn -B -q dependency:go-offline || true
COPY workflows workflows
COPY activities activities
COPY shared shared
COPY mcp-frontend mcp-frontend
COPY app app
COPY src/main src/main
# the contract file's JSON Schema, which the build puts into the jar for the contract loader
COPY docs/contract.schema.json docs/contract.schema.json
RUN mvn -B -q -DskipTests package && cp target/onceport.jar /onceport.jar

FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 onceport \
 && useradd --system --uid 10001 --gid onceport --home-dir /data --shell /usr/sbin/nologin onceport \
 && mkdir -p /app /data/keys \
 && chown -R onceport:onceport /data
COPY --from=build /onceport.jar /app/onceport.jar
COPY contracts /app/contracts
ENV ONCEPORT_DATA=/data
WORKDIR /data
VOLUME ["/data"]
USER onceport:onceport
ENTRYPOINT ["java","-XX:+ExitOnOutOfMemoryError","-jar","/app/onceport.jar"]
CMD ["--help"]
