module pipe_add32 (
    input  wire        clk,
    input  wire        rst,
    input  wire        in_valid,
    input  wire [31:0] a,
    input  wire [31:0] b,
    output reg  [31:0] sum,
    output reg         cout,
    output reg         out_valid
);
    reg [15:0] lo_sum, a_hi, b_hi;
    reg        lo_carry, v1;

    wire [16:0] lo_full = {1'b0, a[15:0]} + {1'b0, b[15:0]};
    wire [16:0] hi_full = {1'b0, a_hi} + {1'b0, b_hi} + {16'd0, lo_carry};

    always @(posedge clk) begin
        if (rst) begin
            {lo_sum, a_hi, b_hi, lo_carry, v1} <= 50'd0;
            {sum, cout, out_valid} <= 34'd0;
        end else begin
            // stage 1
            lo_sum <= lo_full[15:0];
            lo_carry <= lo_full[16];
            a_hi <= a[31:16];
            b_hi <= b[31:16];
            v1 <= in_valid;
            // stage 2
            sum <= {hi_full[15:0], lo_sum};
            cout <= hi_full[16];
            out_valid <= v1;
        end
    end
endmodule
