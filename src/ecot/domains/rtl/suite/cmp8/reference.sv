module cmp8 (
    input  wire [7:0] a,
    input  wire [7:0] b,
    input  wire       is_signed,
    output wire       lt,
    output wire       eq,
    output wire       gt
);
    // Flipping the sign bits maps two's-complement order onto unsigned order.
    wire [7:0] ka = {a[7] ^ is_signed, a[6:0]};
    wire [7:0] kb = {b[7] ^ is_signed, b[6:0]};

    assign eq = (a == b);
    assign lt = (ka < kb);
    assign gt = (ka > kb);
endmodule
