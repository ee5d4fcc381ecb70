# An odd step is always followed by an even one, so take both at once with a cmov.
	.text
	.globl	collatz
	.type	collatz, @function
collatz:
	xorl	%eax, %eax
	cmpq	$1, %rdi
	je	.Ldone
.Lloop:
	movq	%rdi, %rcx
	andl	$1, %ecx
	leaq	1(%rdi,%rdi,2), %rdx
	cmovne	%rdx, %rdi
	leaq	1(%rax,%rcx), %rax
	shrq	%rdi
	cmpq	$1, %rdi
	jne	.Lloop
.Ldone:
	ret
	.size	collatz, .-collatz
	.section	.note.GNU-stack,"",@progbits
