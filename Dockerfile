# The msgsvc image: one static binary (CGO_ENABLED=0) and the CA
# certificates, on an empty base (FROM scratch). Build it with
#   docker build -t msgsvc .            (needs the golang image for the build stage)
# or, where no base image can be pulled, with `make image`: it builds the
# binary on the host into bin/image/ and builds the `prebuilt` target, which
# pulls nothing. See docs/deploy.md.

ARG GO_IMAGE=golang:1.26-bookworm

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/msgsvc ./cmd/msgsvc \
 && cp /etc/ssl/certs/ca-certificates.crt /out/ca-certificates.crt

# make image: bin/image/ holds msgsvc and ca-certificates.crt.
FROM scratch AS prebuilt
COPY bin/image/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY bin/image/msgsvc /msgsvc
USER 65532:65532
EXPOSE 8080 9464
ENTRYPOINT ["/msgsvc"]
CMD ["run"]

FROM scratch
COPY --from=build /out/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/msgsvc /msgsvc
USER 65532:65532
EXPOSE 8080 9464
ENTRYPOINT ["/msgsvc"]
CMD ["run"]
