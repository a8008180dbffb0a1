package serverevents

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// MaxExportBytes bounds one OTLP export body.
const MaxExportBytes = 64 << 20

// TracesPath is the OTLP/HTTP path of trace exports.
const TracesPath = "/v1/traces"

// Export is one export request as received: Body is the protobuf
// ExportTraceServiceRequest (as sent over HTTP, after any gzip; over gRPC,
// the message re-encoded deterministically), Spans its request spans.
type Export struct {
	Body  []byte
	Spans []Span
}

// Receiver is an OTLP trace receiver: OTLP/gRPC and OTLP/HTTP (protobuf)
// on one address, so vLLM's exporter reaches it whichever protocol
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL picks.
type Receiver struct {
	ln   net.Listener
	srv  *http.Server
	grpc *grpc.Server

	mu      sync.Mutex
	exports []Export
	spans   int
	refused map[string]int // what the receiver refused, by Refusals' wording
	once    sync.Once
}

// Listen starts a Receiver on addr (host:port; port 0 picks one).
func Listen(addr string) (*Receiver, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	r := &Receiver{ln: ln, grpc: grpc.NewServer(grpc.MaxRecvMsgSize(MaxExportBytes))}
	collectortrace.RegisterTraceServiceServer(r.grpc, traceService{r: r})
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true) // gRPC without TLS: HTTP/2 with prior knowledge
	r.srv = &http.Server{Handler: r, Protocols: &p, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

// Addr is the address the receiver listens on (host:port).
func (r *Receiver) Addr() string { return r.ln.Addr().String() }

// Close stops the receiver. It is idempotent.
func (r *Receiver) Close() error {
	var err error
	r.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err = r.srv.Shutdown(ctx)
		r.grpc.Stop()
		// Serve runs on its own goroutine and may not have taken the
		// listener yet, in which case Shutdown leaves it open (and Serve
		// then takes it): close it here so that the port is free on return.
		if cerr := r.ln.Close(); cerr != nil && !errors.Is(cerr, net.ErrClosed) && err == nil {
			err = cerr
		}
	})
	return err
}

// Exports returns what was received so far, in arrival order.
func (r *Receiver) Exports() []Export {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Export(nil), r.exports...)
}

// Spans counts the request spans received so far.
func (r *Receiver) Spans() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spans
}

func (r *Receiver) add(e Export) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exports = append(r.exports, e)
	r.spans += len(e.Spans)
}

// ServeHTTP routes gRPC to the gRPC server and serves OTLP/HTTP.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.ProtoMajor == 2 && strings.HasPrefix(req.Header.Get("Content-Type"), "application/grpc") {
		r.grpc.ServeHTTP(w, req)
		return
	}
	if req.URL.Path != TracesPath {
		r.refuse(fmt.Sprintf("HTTP %ss to %s arrived: the endpoint needs the %s path with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf (--otlp-traces-endpoint http://%s%s)",
			clip(req.Method), clip(req.URL.Path), TracesPath, r.Addr(), TracesPath))
		http.Error(w, "benchseal receives OTLP traces at "+TracesPath, http.StatusNotFound)
		return
	}
	if req.Method != http.MethodPost {
		r.refuse(fmt.Sprintf("HTTP %ss to %s arrived: OTLP exports are POSTs", clip(req.Method), TracesPath))
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); ct != "application/x-protobuf" {
		r.refuse(fmt.Sprintf("OTLP/HTTP exports as %q arrived: benchseal takes application/x-protobuf only (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf, not http/json)", clip(ct)))
		http.Error(w, "benchseal receives OTLP/HTTP as application/x-protobuf only (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf)", http.StatusUnsupportedMediaType)
		return
	}
	body, err := readBody(req)
	if err != nil {
		r.refuse("OTLP/HTTP exports that could not be read arrived: " + clip(err.Error()))
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	spans, err := DecodeOTLP(body)
	if err != nil {
		r.refuse("OTLP/HTTP exports that do not decode arrived: " + clip(err.Error()))
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(Export{Body: body, Spans: spans})
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// refuse counts a request the receiver refused.
func (r *Receiver) refuse(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refused == nil {
		r.refused = map[string]int{}
	}
	if _, ok := r.refused[why]; ok || len(r.refused) < 16 {
		r.refused[why]++
	}
}

// Refusals says what the receiver refused so far (requests on another
// path than /v1/traces, JSON exports, bodies that do not decode), each
// with how often, in order: the reason a server that exported got no
// span here.
func (r *Receiver) Refusals() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.refused))
	for why, n := range r.refused {
		times := "once"
		if n > 1 {
			times = fmt.Sprintf("%d times", n)
		}
		out = append(out, fmt.Sprintf("%s (%s)", why, times))
	}
	slices.Sort(out)
	return out
}

// clip keeps a client-chosen string short in a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func readBody(req *http.Request) ([]byte, error) {
	var src io.Reader = http.MaxBytesReader(nil, req.Body, MaxExportBytes)
	switch req.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		src = io.LimitReader(zr, MaxExportBytes+1)
	default:
		return nil, errors.New("unsupported Content-Encoding " + req.Header.Get("Content-Encoding"))
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(src); err != nil {
		return nil, err
	}
	if buf.Len() > MaxExportBytes {
		return nil, errors.New("export too large")
	}
	return buf.Bytes(), nil
}

type traceService struct {
	collectortrace.UnimplementedTraceServiceServer
	r *Receiver
}

func (t traceService) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	body, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		return nil, err
	}
	t.r.add(Export{Body: body, Spans: spansOf(req)})
	return &collectortrace.ExportTraceServiceResponse{}, nil
}
