module accum16 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        en,
    input  wire [7:0]  din,
    output reg  [15:0] sum,
    output reg         ovf
);
    wire [16:0] next = {1'b0, sum} + {9'd0, din};

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            sum <= 16'd0;
            ovf <= 1'b0;
        end else if (en) begin
            sum <= next[15:0];
            if (next[16])
                ovf <= 1'b1;
        end
    end
endmodule
