/* SPDX-License-Identifier: MIT */
/* static-exit - a statically linked program that exits with status 7. */
int main(void)
{
	return 7;
}
