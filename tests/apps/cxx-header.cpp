// SPDX-License-Identifier: MIT
// The public header, event definitions and emission compile as C++.
#include <shmtrace/shmtrace.h>
#include <shmtrace/reader.h>	// the reader's header compiles as C++ too
#include <string>

SHMTRACE_EVENT(shmtrace_cxx, ev, SHMTRACE_INFO,
	SHMTRACE_U64(n),
	SHMTRACE_DOUBLE(x),
	SHMTRACE_STRING(s),
	SHMTRACE_SEQ(u16, v))

SHMTRACE_EVENT(shmtrace_cxx, empty, SHMTRACE_DEBUG)

int main()
{
	std::string s = "c++";
	const uint16_t v[] = { 1, 2 };

	shmtrace(shmtrace_cxx, ev, 1, 2.5, s.c_str(), v, 2);
	shmtrace(shmtrace_cxx, empty);
	return shmtrace_version() != nullptr ? 0 : 1;
}
