package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TLSFiles are PEM files of a test CA and a server certificate for 127.0.0.1.
type TLSFiles struct {
	CA, Cert, Key string
}

// MakeTLS writes a fresh CA and a server certificate signed by it.
func MakeTLS(t testing.TB) TLSFiles {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tairbench test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatalf("tls: %v", err)
	}
	srvKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	caCert, _ := x509.ParseCertificate(caDER)
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatalf("tls: %v", err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(srvKey)
	f := TLSFiles{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server.key")}
	write := func(path, typ string, der []byte) {
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o644); err != nil {
			t.Fatalf("tls: %v", err)
		}
	}
	write(f.CA, "CERTIFICATE", caDER)
	write(f.Cert, "CERTIFICATE", srvDER)
	write(f.Key, "EC PRIVATE KEY", keyDER)
	return f
}

// StartRedisTLS starts redis-server with a TLS port (no plain port) and
// returns it with its TLS files.
func StartRedisTLS(t testing.TB) (*Redis, TLSFiles) {
	t.Helper()
	f := MakeTLS(t)
	port := FreePort(t)
	r := StartRedis(t, "--tls-port", strconv.Itoa(port), "--tls-cert-file", f.Cert, "--tls-key-file", f.Key,
		"--tls-ca-cert-file", f.CA, "--tls-auth-clients", "no")
	r.TLSPort = port
	return r, f
}
