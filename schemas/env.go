package schemas

// Schema names of the environment documents under env/.
const (
	ClientSchema = "benchseal.client/v1"
	HostSchema   = "benchseal.host/v1"
	GPUSchema    = "benchseal.gpu/v1"
)

// ClientInfo is env/client.json: the benchseal binary that ran and how it
// was called.
type ClientInfo struct {
	Schema   string   `json:"schema"` // ClientSchema
	Tool     Tool     `json:"tool"`
	Platform string   `json:"platform"` // GOOS/GOARCH
	Command  []string `json:"command"`  // the command line, redacted
	// Notes say what could not be determined (the binary could not be
	// hashed, ...); the rest of the document still stands.
	Notes []string `json:"notes,omitempty"`
}

// HostInfo is env/host.json: the machine the client ran on, read at the
// start of the run.
type HostInfo struct {
	Schema            string      `json:"schema"`   // HostSchema
	Hostname          string      `json:"hostname"` // "[REDACTED]" with --redact-host
	HostnameRedacted  bool        `json:"hostname_redacted"`
	OS                string      `json:"os"` // GOOS
	Arch              string      `json:"arch"`
	OSRelease         string      `json:"os_release,omitempty"` // PRETTY_NAME of /etc/os-release
	Kernel            string      `json:"kernel,omitempty"`     // uname release
	KernelVersion     string      `json:"kernel_version,omitempty"`
	CPUModel          string      `json:"cpu_model,omitempty"`
	CPUs              int         `json:"cpus"`                // logical CPUs online
	CPUCores          int         `json:"cpu_cores,omitempty"` // physical cores, when known
	MemoryBytes       int64       `json:"memory_bytes"`        // MemTotal
	MemAvailableBytes int64       `json:"mem_available_bytes"` // MemAvailable at start
	LoadAvg           *[3]float64 `json:"load_avg,omitempty"`  // 1, 5, 15 minutes at start
	Notes             []string    `json:"notes,omitempty"`     // what could not be read, and why
}

// GPUInfo is env/gpu.json: the GPUs as NVML saw them at the start of the
// run. Available false is not an error: Reason says why there is nothing
// (no NVML library, no GPU, a binary built without cgo).
type GPUInfo struct {
	Schema            string      `json:"schema"` // GPUSchema
	Available         bool        `json:"available"`
	Reason            string      `json:"reason,omitempty"`
	DriverVersion     string      `json:"driver_version,omitempty"`
	CUDADriverVersion string      `json:"cuda_driver_version,omitempty"` // "12.4"
	NVMLVersion       string      `json:"nvml_version,omitempty"`
	GPUs              []GPUDevice `json:"gpus"`
}

// GPUDevice is one GPU. A nil field is one NVML could not report on this
// device (not supported, no permission); Notes name those that failed for
// another reason than lack of support.
type GPUDevice struct {
	Index            int          `json:"index"`
	Name             string       `json:"name"`
	UUID             string       `json:"uuid"`
	Serial           *string      `json:"serial"`
	PCIBusID         *string      `json:"pci_bus_id"`
	MemoryTotalBytes *uint64      `json:"memory_total_bytes"`
	SMClockMHz       *uint32      `json:"sm_clock_mhz"`
	MemClockMHz      *uint32      `json:"mem_clock_mhz"`
	SMClockMaxMHz    *uint32      `json:"sm_clock_max_mhz"`
	MemClockMaxMHz   *uint32      `json:"mem_clock_max_mhz"`
	PowerLimitW      *float64     `json:"power_limit_w"`
	PersistenceMode  *bool        `json:"persistence_mode"`
	ECCEnabled       *bool        `json:"ecc_enabled"`
	MIGEnabled       *bool        `json:"mig_enabled"`
	ComputeMode      *string      `json:"compute_mode"` // "default", "exclusive_thread", "prohibited", "exclusive_process"
	Processes        []GPUProcess `json:"processes"`
	Notes            []string     `json:"notes,omitempty"`
}

// GPUProcess is a process holding a GPU context when the run started.
type GPUProcess struct {
	PID             uint32 `json:"pid"`
	UsedMemoryBytes uint64 `json:"used_memory_bytes"`
	Kind            string `json:"kind"` // "compute" or "graphics"
}
