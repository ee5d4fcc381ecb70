module alu8 (
    input  wire [7:0] a,
    input  wire [7:0] b,
    input  wire [2:0] op,
    output reg  [7:0] y,
    output wire       zero,
    output reg        carry
);
    wire [8:0] add_full = {1'b0, a} + {1'b0, b};
    wire [8:0] sub_full = {1'b0, a} - {1'b0, b};
    // Signed a < b: the signs differ and a is negative, or the signs agree and a - b is negative.
    wire       a_lt_b_signed = (a[7] != b[7]) ? a[7] : sub_full[7];

    always @* begin
        carry = 1'b0;
        case (op)
            3'b000: begin y = add_full[7:0]; carry = add_full[8]; end
            3'b001: begin y = sub_full[7:0]; carry = sub_full[8]; end
            3'b010: y = a & b;
            3'b011: y = a | b;
            3'b100: y = a ^ b;
            3'b101: begin y = {a[6:0], 1'b0}; carry = a[7]; end
            3'b110: begin y = {1'b0, a[7:1]}; carry = a[0]; end
            default: y = {7'b0, a_lt_b_signed};
        endcase
    end

    assign zero = (y == 8'h00);
endmodule
